export const render = (props) => window.C04.components[props.view.model.class_name](props)
